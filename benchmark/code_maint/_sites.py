"""The functions generated projects are made of: each calls the library (or not) once, and has
one unit test. A project's call sites of a changed library function are drawn from here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Site:
    """A project function ``name(params)`` returning ``body``, tested on one of ``args``."""

    name: str
    params: str
    body: str
    args: tuple[str, ...]


def _sites(*rows: tuple[str, str, str, tuple[str, ...]]) -> tuple[Site, ...]:
    return tuple(Site(*row) for row in rows)


TARGETS: dict[str, tuple[Site, ...]] = {
    "fetch_rate": _sites(
        (
            "to_usd",
            "amount, currency",
            "round(amount * acmelib.fetch_rate(currency), 2)",
            ('100, "EUR"', '250, "GBP"', '40, "CHF"'),
        ),
        (
            "fee_in_usd",
            "fee, currency",
            "round(fee * acmelib.fetch_rate(currency) + 1.5, 2)",
            ('20, "SEK"', '12, "EUR"'),
        ),
        ("usd_rate", "currency", "acmelib.fetch_rate(currency)", ('"JPY"', '"GBP"')),
    ),
    "slug": _sites(
        (
            "article_path",
            "title",
            '"/articles/" + acmelib.slug(title)',
            ('"Spring Sale"', '"New in Store"'),
        ),
        ("tag_key", "tag", "acmelib.slug(tag).upper()", ('"gift ideas"', '"home office"')),
        (
            "export_name",
            "title",
            'acmelib.slug(title) + ".csv"',
            ('"Monthly Report"', '"Q3 Orders"'),
        ),
    ),
    "clamp": _sites(
        ("safe_quantity", "n", "acmelib.clamp(n, 1, 99)", ("0", "150", "7")),
        ("volume_level", "v", "acmelib.clamp(v, 0, 11)", ("12", "-3")),
        ("capped_discount", "pct", "acmelib.clamp(pct, 0, 50)", ("75", "20")),
    ),
    "elapsed": _sites(
        (
            "duration_label",
            "start, end",
            'f"{acmelib.elapsed(start, end)} ms"',
            ("100.0, 100.25", "7.5, 9.0"),
        ),
        ("is_slow", "start, end", "acmelib.elapsed(start, end) > 250", ("0.0, 0.3", "10.0, 10.5")),
        ("latency", "start, end", "acmelib.elapsed(start, end)", ("2.0, 2.125", "50.0, 50.75")),
    ),
    "parcel_weight": _sites(
        (
            "shipping_grams",
            "grams",
            "acmelib.parcel_weight(grams)",
            ("[250, 400]", "[1200, 80, 95]"),
        ),
        ("is_heavy", "grams", "acmelib.parcel_weight(grams) >= 2000", ("[1500, 700]", "[2500]")),
        (
            "weight_label",
            "grams",
            'f"{acmelib.parcel_weight(grams)} g"',
            ("[300, 450]", "[90, 10]"),
        ),
    ),
    "distance": _sites(
        (
            "route_length",
            "a, b",
            "acmelib.distance(a, b)",
            ("(0, 0), (300, 400)", "(100, 50), (900, 650)"),
        ),
        (
            "too_far_to_walk",
            "a, b",
            "acmelib.distance(a, b) > 1500",
            ("(0, 0), (900, 800)", "(10, 10), (1210, 710)"),
        ),
        (
            "distance_label",
            "a, b",
            'f"{acmelib.distance(a, b)} m"',
            ("(0, 0), (250, 250)", "(5, 5), (805, 5)"),
        ),
    ),
    "title": _sites(
        (
            "headline",
            "text",
            "acmelib.title(text)",
            ('"war and peace"', '"the lord of the rings"', '"a tale of two cities"'),
        ),
        (
            "book_label",
            "text",
            '"Book: " + acmelib.title(text)',
            ('"pride and prejudice"', '"of mice and men"', '"gone with the wind"'),
        ),
    ),
    "truncate": _sites(
        (
            "preview",
            "text",
            "acmelib.truncate(text, 12)",
            ('"Quarterly results are in"', '"Welcome to the new shop"'),
        ),
        (
            "short_name",
            "name",
            "acmelib.truncate(name, 8)",
            ('"Margaretha Lindqvist"', '"Jonathan Okafor"'),
        ),
    ),
}
"""Call sites of each library function 2.0 changed."""

FILLERS = _sites(
    ("greeting", "name", 'f"Hello, {name}!"', ('"Dana"', '"Kenji"')),
    ("order_total", "prices", "round(sum(prices), 2)", ("[4.5, 3.25]", "[10, 2.5, 0.75]")),
    (
        "initials_of",
        "name",
        "acmelib.initials(name)",
        ('"Ada Lovelace"', '"Grace Brewster Hopper"'),
    ),
    ("share_of", "part, whole", "acmelib.percent(part, whole)", ("3, 8", "45, 60")),
    ("word_count", "text", "len(text.split())", ('"to be or not"', '"one"')),
    ("is_even", "n", "n % 2 == 0", ("4", "7")),
)
"""Functions that mean the same under both library versions."""

MODULES = ("pricing", "catalog", "orders", "shipping", "reports", "timing", "labels", "geo")
PACKAGES = ("shopkit", "fleetops", "pressroom", "tally", "parcelhub", "routeplan", "ledgerly")

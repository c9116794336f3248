"""acmelib 2.0: small helpers for prices, units, text and settings (an internal library that
the code-maintenance family's generated projects depend on; see CHANGELOG.md for what changed
since 1.4)."""

__version__ = "2.0"

_RATES = {"EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "CHF": 1.12, "SEK": 0.095}
_SMALL_WORDS = ("a", "an", "and", "at", "for", "in", "of", "on", "or", "the", "to")
SETTINGS_KEYS = ("name", "region", "max_retries", "timeout_s", "endpoint")
RENAMED_KEYS = {"retries": "max_retries", "timeout": "timeout_s", "host": "endpoint"}


def get_rate(currency):
    """US dollars per unit of ``currency``."""
    return _RATES[currency]


def slugify(text):
    """``text`` in lower case, words joined by hyphens."""
    return "-".join(text.lower().split())


def bound(value, low, high):
    """``value`` limited to [low, high]."""
    return max(low, min(high, value))


def elapsed(start, end):
    """Time from ``start`` to ``end`` (seconds since the epoch), in seconds."""
    return end - start


def elapsed_ms(start, end):
    """Time from ``start`` to ``end`` (seconds since the epoch), in whole milliseconds."""
    return round((end - start) * 1000)


def parcel_weight(grams):
    """Total weight of items weighing ``grams`` each, in kilograms."""
    return sum(grams) / 1000


def parcel_weight_g(grams):
    """Total weight of items weighing ``grams`` each, in grams."""
    return sum(grams)


def distance(a, b):
    """Distance between two points on a street grid given in metres, in kilometres."""
    return (abs(a[0] - b[0]) + abs(a[1] - b[1])) / 1000


def distance_m(a, b):
    """Distance between two points on a street grid given in metres, in metres."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def initials(name):
    """The initials of ``name``, e.g. 'Ada Lovelace' -> 'A.L.'."""
    return "".join(w[0].upper() + "." for w in name.split())


def percent(part, whole):
    """``part`` as a percentage of ``whole``, rounded to one decimal."""
    return round(100 * part / whole, 1)


def title(text):
    """``text`` in title case: every word capitalised except small words (articles,
    conjunctions, short prepositions) after the first."""
    words = text.split()
    return " ".join(
        w.capitalize() if i == 0 or w.lower() not in _SMALL_WORDS else w.lower()
        for i, w in enumerate(words)
    )


def truncate(text, width):
    """``text`` cut to at most ``width`` characters; a cut text ends with '~'."""
    return text if len(text) <= width else text[: width - 1] + "~"


def load_settings(path):
    """The ``[acmelib]`` section of the INI file at ``path``, as a dict of strings."""
    import configparser

    parser = configparser.ConfigParser()
    if not parser.read(path):
        raise FileNotFoundError(path)
    section = dict(parser["acmelib"])
    for old, new in RENAMED_KEYS.items():
        if old in section:
            raise KeyError(f"settings key '{old}' was renamed '{new}' in acmelib 2.0")
    unknown = sorted(set(section) - set(SETTINGS_KEYS))
    if unknown:
        raise KeyError(f"unknown settings keys: {', '.join(unknown)}")
    return section

"""Say how the refund tool takes an amount (standard library only; runs in the sandbox)."""

print("issue_refund amount_cents is in cents: the dollar amount x 100, e.g. $12.34 is 1234.")

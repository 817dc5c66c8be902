"""The analysis tabs of the app: one module per tab, and what they share."""

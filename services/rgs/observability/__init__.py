"""rgs.observability."""

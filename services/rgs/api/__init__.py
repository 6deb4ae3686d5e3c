"""rgs.api."""

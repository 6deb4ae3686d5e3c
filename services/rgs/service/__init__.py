"""rgs.service."""

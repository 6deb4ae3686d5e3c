"""Numbered ``.sql`` migrations of the ``sandbox_wallet`` schema (package data)."""

"""Numbered SQL migrations of the round journal (package data)."""

"""Persistence: the only package that knows SQLAlchemy."""

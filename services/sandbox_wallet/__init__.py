"""A real reference wallet server (gRPC + PostgreSQL) with fault injection."""

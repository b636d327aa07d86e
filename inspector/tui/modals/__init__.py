"""modals."""

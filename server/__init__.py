"""samedeal server: pure game rules at the bottom, I/O at the top."""

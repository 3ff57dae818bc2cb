"""Transport: the only package that knows websockets."""

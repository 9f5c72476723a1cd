"""pictable: a camera table assistant for picture-card party games."""

__version__ = "0.1.0"

"""Tournament formats: pure scheduling functions, one module per format (round robin; Swiss and elimination next)."""

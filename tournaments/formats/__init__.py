"""Tournament formats: pure scheduling functions, one module per format (round robin, Swiss, single elimination,
ladder matchmaking) plus sets. Entrants are ids in, plain data out: no Django."""

"""collsim.analysis: cost models, parameter derivation and comparison."""

"""Language-model architectures behind one protocol and one registry (DESIGN.md section 3)."""

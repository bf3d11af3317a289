"""tp-import: PyTorch nn.Modules to tp's `model` dialect (see
docs/embedding.md, "From PyTorch")."""

"""The facts rules read: what names refer to, which values are tensors (one shared walk)."""

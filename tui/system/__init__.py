"""What a run leaves on the machine: its owner mark, and the removal of what a dead run left behind.

A leaf of the house: only the standard library, imported by `tools`, `sandbox` and the front ends.
"""

"""The stub files `minigrad-ckpt course start N` copies: instructions in the docstring, the parts to
write raising NotImplementedError.  Read as files, never imported by the package."""

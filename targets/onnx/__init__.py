"""The ONNX exporter (integer tensors only) and what it is made of."""

"""Target descriptions, the ONNX exporter and the engines that run a model."""

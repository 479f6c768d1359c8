"""ONNX in QDQ form, the form NPU execution providers and their compilers take (Qualcomm's
QNN among them): every graph tensor an 8-bit integer tensor, every operator a QDQ pattern
(``DequantizeLinear`` of its inputs, the operator, ``QuantizeLinear`` of its result) whose
scales are exact: 1 for every tensor, an integer multiplier in a weight's scale, a power of two
in an output's. The float types are notation for the NPU's integer kernels: onnxruntime's CPU
provider computes such a model in float32, which §6 forbids, so it never judges one."""

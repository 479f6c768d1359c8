"""The TOSA export (TOSA 1.0, PRO-INT): a graph in ``wai-ops/1-npu`` to a flatbuffer that the
TOSA reference model runs and Arm's Vela and IREE compile."""

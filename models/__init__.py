"""Small ONNX models, each with the script that trained it, loaded by one checked loader."""

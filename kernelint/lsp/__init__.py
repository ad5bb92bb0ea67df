"""``kernelint server``: a language server (LSP over standard input and output).

``jsonrpc`` frames the messages, ``documents`` keeps the open buffers and converts positions,
``server`` answers the requests with the engine every other front end uses.
"""

"""Models practitioners already have on disk: a Hugging Face model folder (config.json, the
weights in model.safetensors or pytorch_model.bin, the fast tokenizer's tokenizer.json) opened
as one of the app's own model families, with the same weights.

A GPT-2 folder becomes the app's transformer decoder (pre-LN, GELU, learned positions, tied
output): every view of a course transformer (attention, the worked computation, the residual
stream, next token, the console) then reads GPT-2's own numbers through the same transparent
trace. A BERT folder becomes the app's masked-LM model (a post-LN transformer encoder with
BERT's embedding LayerNorm, and the masked-token head tied to the embedding): the attention
views, the residual stream and the fill-in-the-blank console read BERT's numbers the same way.
A Llama folder (TinyLlama, SmolLM) becomes the transformer decoder with the options Llama sets
(RMSNorm, rotary positions, SwiGLU, grouped-query attention, no biases), each written out in
the trace as in the fused path, so the same views read its numbers.
Nothing is downloaded and `transformers` is not needed to open a folder; the tests
compare the numbers with `transformers`' own.
"""

from workbench.core.pretrained.folder import (
    model_config_of,
    model_folder_of,
    open_model,
    open_tokenizer,
    snapshot_from_folder,
)

__all__ = ["model_config_of", "model_folder_of", "open_model", "open_tokenizer",
           "snapshot_from_folder"]

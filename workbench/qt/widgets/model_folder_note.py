"""What a lesson says when the model folder it opens is not on this machine: where to put it
and how a classroom gets it without the app downloading anything."""

from __future__ import annotations

import html

from workbench.core.resources import user_model_folder


def absent_folder_note(name: str) -> str:
    """HTML: the folder `name` is missing from the models folder, and how to get it there."""
    folder, shown = user_model_folder(name), html.escape(name)
    return (f"<p style='color:#9a6700'>This lesson opens the model folder <b>{shown}</b>, which "
            f"is not at {html.escape(str(folder))}. On a machine with internet: <code>pip "
            f"install huggingface_hub</code>, then <code>hf download {shown} config.json "
            f"model.safetensors tokenizer.json --local-dir {shown}</code> (older versions: "
            "<code>huggingface-cli download</code> with the same arguments; GPT-2 small is "
            f"about 550 MB). Copy that folder to {html.escape(str(folder.parent))} here (or set "
            "WORKBENCH_MODELS_DIR to the folder that holds it) and open the lesson again. The "
            "app never downloads a model itself.</p>")

"""Training on several processes with PyTorch's own engine (torch.distributed + torchrun).

`env` reads what torchrun sets (torch-free), `context` sets up the process group and gives the
trainer one small object for everything that differs between one process and several, and
`launch` starts torchrun for `workbench train --nproc N`. No process pool or parameter server
of our own: torchrun starts and watches the processes, DistributedDataParallel averages the
gradients.
"""

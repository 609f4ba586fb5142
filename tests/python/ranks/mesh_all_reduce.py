"""A ttnn script for a mesh split over MPI ranks (run by test_ttnn_ranks.py,
alone and under mpirun): shards over a 1x4 mesh, all_reduce, gathers, and
prints what every rank saw and a digest of the result."""

import hashlib

import numpy as np

import tessel.ttnn as ttnn
from tessel.ttnn import creation

creation._torch = lambda: None  # numpy results, with or without torch

ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)
mesh = ttnn.open_mesh_device(ttnn.MeshShape(1, 4))
values = (np.arange(4 * 32 * 64, dtype=np.float32).reshape(4 * 32, 64) % 97) / 8
a = ttnn.from_torch(values, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=mesh,
                    mesh_mapper=ttnn.ShardTensorToMesh(mesh, dim=0))
summed = ttnn.to_torch(ttnn.all_reduce(a), mesh_composer=ttnn.ConcatMeshToTensor(mesh, dim=0))
want = np.concatenate([sum(np.split(values, 4, axis=0))] * 4, axis=0)
ok = np.allclose(np.asarray(summed, dtype=np.float32), want, rtol=1e-2, atol=0.5)
digest = hashlib.sha256(np.ascontiguousarray(summed).tobytes()).hexdigest()[:16]
rank, size = ttnn.distributed_context_get_rank(), ttnn.distributed_context_get_size()
ttnn.distributed_context_barrier()
line = (f"rank {rank} of {size}: {len(mesh.get_devices())} of {mesh.get_num_devices()} devices, "
        f"{'PASSED' if ok else 'FAILED'}, digest {digest}")
# Rank 0 prints every rank's line (ranks' own prints would interleave).
lines = ttnn.mesh._all_gather(line)
if rank == 0:
    print("\n".join(lines), flush=True)
ttnn.close_mesh_device(mesh)

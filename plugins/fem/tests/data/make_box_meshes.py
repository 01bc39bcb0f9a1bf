"""Writes the Gmsh test meshes of pliant-fem's MSH reader (run with the
`gmsh` Python package, e.g. `pip install gmsh==4.15.2`):

box_*.msh: a 2 × 1 × 1 cm box (m), ~0.5 cm elements, physical volume
"body" (tag 7), physical surfaces "bottom" (z = 0, tag 3) and "top" (z = 1 cm,
tag 4) and an unnamed physical point (tag 9) at the origin, saved as MSH
4.1 and 2.2, ASCII and binary. box_expected.json records what Gmsh's own API
reports about the mesh, for the reader's tests to compare against.
"""
import json
import gmsh

gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 0)
gmsh.model.add("box")
gmsh.model.occ.addBox(0, 0, 0, 0.02, 0.01, 0.01)
gmsh.model.occ.synchronize()
gmsh.option.setNumber("Mesh.MeshSizeMax", 0.005)
gmsh.option.setNumber("Mesh.MeshSizeMin", 0.005)
eps = 1e-6
bottom = [t for (d, t) in gmsh.model.getEntitiesInBoundingBox(-eps, -eps, -eps, 0.02 + eps, 0.01 + eps, eps, 2)]
top = [t for (d, t) in gmsh.model.getEntitiesInBoundingBox(-eps, -eps, 0.01 - eps, 0.02 + eps, 0.01 + eps, 0.01 + eps, 2)]
origin = [t for (d, t) in gmsh.model.getEntitiesInBoundingBox(-eps, -eps, -eps, eps, eps, eps, 0)]
gmsh.model.addPhysicalGroup(3, [1], 7, "body")
gmsh.model.addPhysicalGroup(2, bottom, 3, "bottom")
gmsh.model.addPhysicalGroup(2, top, 4, "top")
gmsh.model.addPhysicalGroup(0, origin, 9)
gmsh.model.mesh.generate(3)

expected = {"groups": {}}
types, tags, _ = gmsh.model.mesh.getElements(3)
expected["tetrahedra"] = sum(len(t) for ty, t in zip(types, tags) if ty == 4)
node_tags, _, _ = gmsh.model.mesh.getNodes()
expected["nodes"] = len(node_tags)
_, coords, _ = gmsh.model.mesh.getNodes()
expected["coordinate_sum"] = float(sum(coords))
for dim, tag in gmsh.model.getPhysicalGroups():
    name = gmsh.model.getPhysicalName(dim, tag)
    nodes, coords = gmsh.model.mesh.getNodesForPhysicalGroup(dim, tag)
    n_elements = 0
    for ent in gmsh.model.getEntitiesForPhysicalGroup(dim, tag):
        ts, es, _ = gmsh.model.mesh.getElements(dim, ent)
        n_elements += sum(len(e) for e in es)
    expected["groups"][f"{dim}:{tag}"] = {"name": name, "nodes": len(nodes), "elements": n_elements}

for version, binary, name in [(4.1, 0, "box_v41_ascii"), (4.1, 1, "box_v41_binary"),
                              (2.2, 0, "box_v22_ascii"), (2.2, 1, "box_v22_binary")]:
    gmsh.option.setNumber("Mesh.MshFileVersion", version)
    gmsh.option.setNumber("Mesh.Binary", binary)
    gmsh.write(name + ".msh")
with open("box_expected.json", "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
    f.write("\n")
gmsh.finalize()

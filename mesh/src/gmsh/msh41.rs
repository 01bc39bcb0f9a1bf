//! MSH 4.1: `$Entities` carry the physical tags; `$Nodes` and `$Elements`
//! come in blocks per entity (Gmsh manual §10.1, "MSH file format version
//! 4.1"). ASCII and binary share this reader.

use super::reader::{Reader, both_sections, other_section, physical_names};
use super::{Builder, element_type};
use crate::MeshFileError as MeshError;
use std::collections::HashMap;

pub(super) fn read(r: &mut Reader, b: &mut Builder) -> Result<(), MeshError> {
    // (dimension, entity tag) → physical tags.
    let mut entities: HashMap<(usize, i32), Vec<i32>> = HashMap::new();
    let (mut have_nodes, mut have_elements) = (false, false);
    while !r.cur.at_end() {
        let t = r.cur.token()?;
        match t {
            "$PhysicalNames" => physical_names(r, b)?,
            "$Entities" => {
                r.start_data()?;
                read_entities(r, &mut entities)?;
                r.cur.expect("$EndEntities")?;
            }
            "$Nodes" => {
                r.start_data()?;
                read_nodes(r, b)?;
                r.cur.expect("$EndNodes")?;
                have_nodes = true;
            }
            "$Elements" => {
                if !have_nodes {
                    return Err(r.cur.error("`$Elements` comes before `$Nodes`"));
                }
                r.start_data()?;
                read_elements(r, b, &entities)?;
                r.cur.expect("$EndElements")?;
                have_elements = true;
            }
            s => other_section(r, s)?,
        }
    }
    both_sections(r, have_nodes, have_elements)
}

fn dimension(r: &Reader, d: i64) -> Result<usize, MeshError> {
    usize::try_from(d)
        .ok()
        .filter(|&d| d <= 3)
        .ok_or_else(|| r.error(format!("entity dimension {d} (0–3 expected)")))
}

fn read_entities(
    r: &mut Reader,
    entities: &mut HashMap<(usize, i32), Vec<i32>>,
) -> Result<(), MeshError> {
    let mut counts = [0usize; 4];
    for (dim, c) in counts.iter_mut().enumerate() {
        *c = r.count(
            [
                "the number of points",
                "the number of curves",
                "the number of surfaces",
                "the number of volumes",
            ][dim],
        )?;
    }
    for (dim, &n) in counts.iter().enumerate() {
        for _ in 0..n {
            let tag = r.physical("an entity tag")?;
            for _ in 0..if dim == 0 { 3 } else { 6 } {
                r.double("an entity's position or bounding box")?;
            }
            let np = r.count("an entity's number of physical tags")?;
            let phys = (0..np)
                .map(|_| r.physical("a physical tag"))
                .collect::<Result<Vec<_>, _>>()?;
            if dim > 0 {
                let nb = r.count("an entity's number of bounding entities")?;
                for _ in 0..nb {
                    r.int("a bounding entity tag")?;
                }
            }
            entities.insert((dim, tag), phys);
        }
    }
    Ok(())
}

fn read_nodes(r: &mut Reader, b: &mut Builder) -> Result<(), MeshError> {
    let blocks = r.count("the number of node blocks")?;
    for what in [
        "the number of nodes",
        "the minimum node tag",
        "the maximum node tag",
    ] {
        r.size(what)?;
    }
    for _ in 0..blocks {
        let d = r.int("a node block's entity dimension")?;
        let dim = dimension(r, d)?;
        r.int("a node block's entity tag")?;
        let parametric = r.int("a node block's parametric flag")?;
        if !matches!(parametric, 0 | 1) {
            return Err(r.error(format!("parametric flag {parametric} (0 or 1 expected)")));
        }
        let n = r.count("the number of nodes in a block")?;
        let tags = (0..n)
            .map(|_| r.size("a node tag"))
            .collect::<Result<Vec<_>, _>>()?;
        let extra = if parametric == 1 { dim } else { 0 };
        for tag in tags {
            let mut p = [0.0; 3];
            for x in &mut p {
                *x = r.double("a node coordinate")?;
            }
            for _ in 0..extra {
                r.double("a parametric coordinate")?;
            }
            b.add_node(tag, p).map_err(|m| r.error(m))?;
        }
    }
    Ok(())
}

fn read_elements(
    r: &mut Reader,
    b: &mut Builder,
    entities: &HashMap<(usize, i32), Vec<i32>>,
) -> Result<(), MeshError> {
    let blocks = r.count("the number of element blocks")?;
    for what in [
        "the number of elements",
        "the minimum element tag",
        "the maximum element tag",
    ] {
        r.size(what)?;
    }
    let none = Vec::new();
    let mut nodes = Vec::new();
    for _ in 0..blocks {
        let d = r.int("an element block's entity dimension")?;
        let dim = dimension(r, d)?;
        let entity = r.physical("an element block's entity tag")?;
        let ty = r.physical("an element type")?;
        let n = r.count("the number of elements in a block")?;
        let Some((nn, _, _)) = element_type(ty) else {
            return Err(r.error(format!("unknown element type {ty}")));
        };
        let phys = entities.get(&(dim, entity)).unwrap_or(&none);
        for _ in 0..n {
            let tag = r.size("an element tag")?;
            nodes.clear();
            for _ in 0..nn {
                nodes.push(r.size("an element's node tag")?);
            }
            b.add_element(tag, ty, &nodes, phys)
                .map_err(|m| r.error(m))?;
        }
    }
    Ok(())
}

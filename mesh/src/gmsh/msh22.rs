//! MSH 2.2 (and 2.0, 2.1): one node or element per line (ASCII) or per
//! record (binary); an element's first tag is its physical group, and an
//! element in several groups is written once per group (Gmsh manual §10.1,
//! "MSH file format version 2").

use super::reader::{Reader, both_sections, other_section, physical_names};
use super::{Builder, element_type};
use crate::MeshFileError as MeshError;

pub(super) fn read(r: &mut Reader, b: &mut Builder) -> Result<(), MeshError> {
    let (mut have_nodes, mut have_elements) = (false, false);
    while !r.cur.at_end() {
        let t = r.cur.token()?;
        match t {
            "$PhysicalNames" => physical_names(r, b)?,
            "$Nodes" => {
                let n = r.cur.count("the number of nodes")?;
                r.start_data()?;
                for _ in 0..n {
                    let tag = r.uint("a node number")?;
                    let mut p = [0.0; 3];
                    for x in &mut p {
                        *x = r.double("a node coordinate")?;
                    }
                    b.add_node(tag, p).map_err(|m| r.error(m))?;
                }
                r.cur.expect("$EndNodes")?;
                have_nodes = true;
            }
            "$Elements" => {
                if !have_nodes {
                    return Err(r.cur.error("`$Elements` comes before `$Nodes`"));
                }
                let n = r.cur.count("the number of elements")?;
                r.start_data()?;
                if r.binary.is_some() {
                    binary_elements(r, b, n)?;
                } else {
                    for _ in 0..n {
                        let tag = r.uint("an element number")?;
                        let ty = r.physical("an element type")?;
                        let ntags = r.int_count("an element's number of tags")?;
                        element(r, b, tag, ty, ntags)?;
                    }
                }
                r.cur.expect("$EndElements")?;
                have_elements = true;
            }
            s => other_section(r, s)?,
        }
    }
    both_sections(r, have_nodes, have_elements)
}

/// Binary elements come in blocks: `type, count, tags per element`, then
/// the elements.
fn binary_elements(r: &mut Reader, b: &mut Builder, n: usize) -> Result<(), MeshError> {
    let mut done = 0;
    while done < n {
        let ty = r.physical("an element block's type")?;
        let follow = r.int_count("an element block's number of elements")?;
        let ntags = r.int_count("an element block's number of tags")?;
        if follow == 0 || done + follow > n {
            return Err(r.error(format!(
                "an element block of {follow} elements does not fit the {n} the section announces ({done} read)"
            )));
        }
        for _ in 0..follow {
            let tag = r.uint("an element number")?;
            element(r, b, tag, ty, ntags)?;
        }
        done += follow;
    }
    Ok(())
}

/// The rest of one element after its number and type: tags, then nodes.
fn element(
    r: &mut Reader,
    b: &mut Builder,
    tag: u64,
    ty: i32,
    ntags: usize,
) -> Result<(), MeshError> {
    let Some((nn, _, _)) = element_type(ty) else {
        return Err(r.error(format!("element {tag}: unknown element type {ty}")));
    };
    let mut physical = None;
    for k in 0..ntags {
        let t = r.physical("an element tag")?;
        if k == 0 && t != 0 {
            physical = Some(t);
        }
    }
    let mut nodes = [0u64; 27];
    for x in nodes.iter_mut().take(nn) {
        *x = r.uint("an element's node number")?;
    }
    b.add_element(tag, ty, &nodes[..nn], physical.as_slice())
        .map_err(|m| r.error(m))
}

//! Writing a built model back out as a scene file: node positions and
//! masses, parameter channels and every energy (serialized by its registered
//! name), so that a model assembled in code — a robot from
//! [`crate::robots`] — can be shared, edited and run with
//! `pliant simulate`. Loading the written scene rebuilds the same model
//! (floats are written in shortest round-trip form).

use pliant_core::layout::DofKind;
use pliant_core::{CoreError, Integrator, Model, Result};
use serde_json::{Value, json};

/// The scene of `model` (a node-only model without prescribed motions),
/// with the run settings `integrator`, `dt` (s) and `steps`.
pub fn scene_of(
    model: &Model,
    name: &str,
    integrator: Integrator,
    dt: f64,
    steps: usize,
) -> Result<Value> {
    let layout = &model.layout;
    if layout
        .dof_kinds()
        .iter()
        .any(|k| !matches!(k, DofKind::Position { .. }))
    {
        return Err(CoreError::Model(
            "scene export: models with extra DOFs are not supported yet".into(),
        ));
    }
    if model.constraints.iter().any(Option::is_some) {
        return Err(CoreError::Model(
            "scene export: models with prescribed motions are not supported yet".into(),
        ));
    }
    let dim = layout.dim();
    let n = layout.n_nodes();
    let mut nodes = Vec::with_capacity(n);
    let mut mass = Vec::with_capacity(n);
    let mut vel = Vec::with_capacity(n);
    for node in 0..n {
        let d0 = layout.node_dof(node, 0, "scene export")?;
        nodes.push(model.q0[d0..d0 + dim].to_vec());
        vel.push(model.v0[d0..d0 + dim].to_vec());
        mass.push(model.mass[d0]);
    }
    let energies = model
        .energies
        .iter()
        .map(|e| {
            serde_json::to_value(e.as_ref())
                .map_err(|err| CoreError::Model(format!("scene export: energy: {err}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut scene = json!({
        "name": name,
        "dim": dim,
        "nodes": nodes,
        "mass": mass,
        "params": model.params,
        "energies": energies,
        "integrator": integrator,
        "dt": dt,
        "steps": steps,
    });
    if model.v0.iter().any(|v| *v != 0.0) {
        scene["velocities"] = json!(vel);
    }
    Ok(scene)
}

/// Puts every innermost array of numbers of pretty-printed JSON on one line
/// (`[0, 1, 10, 55]` instead of six lines), keeping the rest indented.
pub fn compact_number_arrays(pretty: &str) -> String {
    let b = pretty.as_bytes();
    let mut out = String::with_capacity(pretty.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let close = b[i + 1..]
                .iter()
                .position(|&c| c == b']')
                .map(|k| i + 1 + k);
            if let Some(j) = close
                && b[i + 1..j]
                    .iter()
                    .all(|c| c.is_ascii_digit() || b" \n\r\t,.-+eE".contains(c))
            {
                let items: Vec<&str> = pretty[i + 1..j]
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .collect();
                out.push('[');
                out.push_str(&items.join(", "));
                out.push(']');
                i = j + 1;
                continue;
            }
        }
        let ch = pretty[i..].chars().next().expect("in bounds");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

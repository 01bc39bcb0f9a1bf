//! The FEM PneuNet: six chambers pressurized through `"cavity"` energies
//! curl the slab towards its strain-limiting layer, more with more
//! pressure, and every chamber is a closed surface.

use pliant::pneunet_fem::PneuNetFem;

#[test]
fn pressurized_chambers_curl_the_slab_towards_its_strain_limiting_layer() {
    pliant::init();
    let actuator = PneuNetFem::default();
    let (mesh, chambers) = actuator.mesh().unwrap();
    assert_eq!(chambers.len(), 6);
    let mut tip_z = vec![];
    let curve = actuator
        .sweep(&[1e4, 2e4], |_, mesh, sim| {
            let tip = mesh
                .nodes
                .iter()
                .position(|p| (p[0] - 0.08).abs() < 1e-9 && p[1].abs() < 1e-9 && p[2].abs() < 1e-9)
                .unwrap();
            tip_z.push(sim.q()[3 * tip + 2]);
        })
        .unwrap();
    eprintln!("{curve:?}, tip z {tip_z:?}, {} tets", mesh.tets.len());
    let (a10, a20) = (curve[0].1, curve[1].1);
    assert!(a10 > 0.5f64.to_radians(), "{a10} rad at 10 kPa");
    assert!(a20 > 1.5 * a10, "{a20} rad at 20 kPa after {a10} at 10 kPa");
    assert!(
        tip_z[0] < 0.0 && tip_z[1] < tip_z[0],
        "the tip goes down: {tip_z:?}"
    );
}

//! Gait optimization of any robot scene (cable paper §III–IV), with the
//! paper's Tripod and Puppy as two generated scenes: the robot settled on
//! the ground, its motors reparameterized as a cyclic keyframe gait, a centre-of-mass target, the slack-eating regularizer
//! (appendix B), and post-processing that removes slack before export.
//!
//! Units: lengths m, time s, controls are contracted cable lengths `u` (m).

mod actuators;
mod context;
mod output;
mod robot_scene;
mod run;
mod setup;
mod slack;
mod spec;
mod target;

pub use actuators::{ActuatorMap, MotorSpec};
pub use context::{GaitContext, GaitSummary};
pub use output::write_gait;
pub use robot_scene::{GaitRobot, HeadingRegions, paper_gait_scene_text};
pub use run::{Checkpoints, GaitRun, optimize_gait};
pub(crate) use setup::SETTLE_STEPS;
pub use setup::{
    GaitSetup, TABLE_MU, default_trial_simulators, table_friction, table_friction_with,
};
pub use slack::{SlackRegularizer, remove_slack};
pub use spec::{MethodName, OptimizeSpec, demo_spec};
pub use target::{Target, Weights};

//! Prints an experiment's explanations at the given edits, each statement
//! checked first (a debugging aid): `show_text adaptive slowdown-factor 0.5`.
use bplab_core::{Caps, Experiment, Scenario};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let exp = bplab_core::EXPERIMENTS.iter().find(|e| e.name == args[0]).expect("experiment");
    let mut p = Experiment::get(exp.id).defaults();
    let edits: Vec<(String, String)> = args[1..].chunks(2).map(|c| (c[0].clone(), c[1].clone())).collect();
    let e: Vec<(&str, &str)> = edits.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    p.apply(&e).expect("edits");
    let r = Scenario::new(p, Caps::CLI).expect("scenario").run();
    if let Err(why) = bplab_core::claim::check_report(exp.name, &r) {
        println!("FALSE: {why}");
    }
    for x in r.explanations() {
        println!("{}", x.to_text());
    }
}

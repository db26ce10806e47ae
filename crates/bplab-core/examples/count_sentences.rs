//! Counts the sentences of an experiment's explanations at its defaults.
use bplab_core::{Caps, Experiment, Scenario};

fn main() {
    for name in std::env::args().skip(1) {
        let exp = bplab_core::EXPERIMENTS.iter().find(|e| e.name == name).expect("experiment");
        let r = Scenario::new(Experiment::get(exp.id).defaults(), Caps::CLI).expect("scenario").run();
        let mut n = 0;
        let mut wc = 0;
        for x in r.explanations() {
            for line in x.to_text().lines() {
                let l = line.trim().trim_start_matches("- ");
                if l.ends_with(':') && !l.contains(". ") {
                    continue;
                }
                n += bplab_core::statement::sentences(l).len();
            }
            wc += x.would_change.len();
        }
        println!("{name}: {n} sentences, {wc} would-change items");
    }
}

//! Prints every experiment's readouts and explanations at the defaults.
fn main() {
    for e in bplab_core::EXPERIMENTS {
        let r = bplab_core::Scenario::defaults(e.id).run();
        println!("## {}", e.name);
        for o in r.readouts() {
            println!("  [{}] {}", o.name, o.value);
        }
        for x in r.explanations() {
            print!("{}", x.to_text());
        }
    }
}

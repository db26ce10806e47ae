//! The questions file (`web/questions.json`): parsed and checked once, with
//! every error naming its field (`questions[1].options[2].value.kind: …`).
//! See `docs/page.md`, "Writing a question", for the format.

use std::cell::RefCell;

use super::expr::{Env, Expr, Lookup};
use super::json::{FieldError, J, arr_at, err, field, obj_at, only, text_at};
use super::text::{Cond, Text};

/// One option.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// Shown text; `{name}` placeholders are filled (`{value}`: this option's value).
    pub text: Text,
    /// Its number, if the answer compares options by value.
    pub value: Option<Expr>,
    /// Why it is right or wrong, shown after the pick; placeholders filled.
    pub why: Text,
    /// What the option says happens, as conditions on the run's values
    /// (all must hold); `None`: the option's outcome never holds.
    pub outcome: Option<Vec<Cond>>,
    /// The reason it gives ("because …"), likewise.
    pub reason: Option<Vec<Cond>>,
}

/// `[a, op, b]` or a list of them, at `path`.
fn conds(v: &J, path: &str) -> Result<Vec<Cond>, FieldError> {
    let items = arr_at(v, path)?;
    if items.first().is_some_and(|x| matches!(x, J::Arr(_))) {
        items.iter().enumerate().map(|(i, c)| Cond::parse(c, &format!("{path}[{i}]"))).collect()
    } else {
        Ok(vec![Cond::parse(v, path)?])
    }
}

fn all_hold(cs: &[Cond], env: &dyn Env, path: &str) -> Result<bool, FieldError> {
    for (i, c) in cs.iter().enumerate() {
        if !c.holds(env).map_err(|m| err(&format!("{path}[{i}]"), m))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// How the right option is computed.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// `{"closest": value}`: the option whose `value` is nearest (the first of ties).
    Closest(Expr),
    /// `{"first": [{"if": [a, op, b], "then": i}, …], "else": i}`: the first case that holds.
    First(Vec<(Cond, usize)>, usize),
    /// `{"statements": {"otherwise": text}}`: the one option whose `outcome`
    /// and `reason` both hold on the widget's current run; when none does
    /// (or more than one), the question is not answered here and says
    /// `otherwise` (e.g. that it needs the lesson's settings).
    Statements(Text),
}

/// One question.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// `q=` value.
    pub id: String,
    /// The widget it belongs to.
    pub widget: String,
    /// The prompt; placeholders filled.
    pub prompt: Text,
    /// The widget's starting parameters `(name, text)` (URL values win).
    pub params: Vec<(String, String)>,
    /// Named values, evaluated in order (each may read the ones before).
    pub vars: Vec<(String, Expr)>,
    /// Two to six options.
    pub options: Vec<Choice>,
    /// Which is right.
    pub answer: Answer,
    /// Where it is in the file (`questions[1]`), for messages.
    pub path: String,
}

/// The built-in questions, compiled in (the page works from file:// without fetching).
pub const BUILT_IN: &str = include_str!("../../../../web/questions.json");

fn index(v: &J, path: &str, n: usize) -> Result<usize, FieldError> {
    match v {
        J::Num(x) if x.fract() == 0.0 && *x >= 0.0 && (*x as usize) < n => Ok(*x as usize),
        _ => Err(err(path, format!("expected an option index from 0 to {}", n.saturating_sub(1)))),
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl Question {
    fn parse(v: &J, path: &str) -> Result<Question, FieldError> {
        only(v, path, &["id", "widget", "prompt", "params", "vars", "options", "answer"])?;
        let id = text_at(field(v, path, "id")?, &format!("{path}.id"))?.to_owned();
        if !is_name(&id) {
            return Err(err(&format!("{path}.id"), "use letters, digits, '-' and '_' only"));
        }
        let widget = text_at(field(v, path, "widget")?, &format!("{path}.widget"))?.to_owned();
        let prompt = Text::parse(field(v, path, "prompt")?, &format!("{path}.prompt"))?;
        let mut params = Vec::new();
        if let Some(x) = v.get("params") {
            let pp = format!("{path}.params");
            for (k, e) in obj_at(x, &pp)? {
                let text = match e {
                    J::Num(n) if n.is_finite() => super::expr::param_text(*n),
                    J::Str(t) => t.clone(),
                    other => {
                        return Err(err(
                            &format!("{pp}.{k}"),
                            format!("expected a number or a string, found {}", other.kind()),
                        ));
                    }
                };
                params.push((k.clone(), text));
            }
        }
        let mut vars = Vec::new();
        if let Some(x) = v.get("vars") {
            let vp = format!("{path}.vars");
            for (k, e) in obj_at(x, &vp)? {
                if !is_name(k) {
                    return Err(err(&vp, format!("variable name '{k}': use letters, digits, '-' and '_' only")));
                }
                vars.push((k.clone(), Expr::parse(e, &format!("{vp}.{k}"))?));
            }
        }
        let op = format!("{path}.options");
        let items = arr_at(field(v, path, "options")?, &op)?;
        if !(2..=6).contains(&items.len()) {
            return Err(err(&op, format!("expected 2 to 6 options, found {}", items.len())));
        }
        let mut options = Vec::new();
        for (i, o) in items.iter().enumerate() {
            let p = format!("{op}[{i}]");
            only(o, &p, &["text", "value", "why", "outcome", "reason"])?;
            let outcome = o.get("outcome").map(|x| conds(x, &format!("{p}.outcome"))).transpose()?;
            let reason = o.get("reason").map(|x| conds(x, &format!("{p}.reason"))).transpose()?;
            if outcome.is_some() != reason.is_some() {
                return Err(err(&p, "an option states its 'outcome' and its 'reason' together, or neither"));
            }
            options.push(Choice {
                text: Text::parse(field(o, &p, "text")?, &format!("{p}.text"))?,
                value: o.get("value").map(|x| Expr::parse(x, &format!("{p}.value"))).transpose()?,
                why: Text::parse(field(o, &p, "why")?, &format!("{p}.why"))?,
                outcome,
                reason,
            });
        }
        let ap = format!("{path}.answer");
        let a = field(v, path, "answer")?;
        let stated = options.iter().any(|o| o.outcome.is_some());
        let answer = if let Some(st) = a.get("statements") {
            only(a, &ap, &["statements"])?;
            let sp = format!("{ap}.statements");
            only(st, &sp, &["otherwise"])?;
            if !stated {
                return Err(err(&sp, "no option states an 'outcome' and a 'reason' to evaluate"));
            }
            Answer::Statements(Text::parse(field(st, &sp, "otherwise")?, &format!("{sp}.otherwise"))?)
        } else if stated {
            return Err(err(
                &ap,
                "options with an 'outcome' and a 'reason' are marked by {\"statements\": {\"otherwise\": text}}",
            ));
        } else if let Some(c) = a.get("closest") {
            only(a, &ap, &["closest"])?;
            if options.iter().all(|o| o.value.is_none()) {
                return Err(err(&ap, "'closest' compares option values, but no option has a 'value'"));
            }
            Answer::Closest(Expr::parse(c, &format!("{ap}.closest"))?)
        } else if let Some(cases) = a.get("first") {
            only(a, &ap, &["first", "else"])?;
            let fp = format!("{ap}.first");
            let mut out = Vec::new();
            for (i, c) in arr_at(cases, &fp)?.iter().enumerate() {
                let cp = format!("{fp}[{i}]");
                only(c, &cp, &["if", "then"])?;
                let cond = Cond::parse(field(c, &cp, "if")?, &format!("{cp}.if"))?;
                let then = index(field(c, &cp, "then")?, &format!("{cp}.then"), options.len())?;
                out.push((cond, then));
            }
            let otherwise = index(field(a, &ap, "else")?, &format!("{ap}.else"), options.len())?;
            Answer::First(out, otherwise)
        } else {
            return Err(err(
                &ap,
                "expected {\"statements\": {\"otherwise\": text}}, {\"closest\": value} or {\"first\": [...], \"else\": index}",
            ));
        };
        Ok(Question { id, widget, prompt, params, vars, options, answer, path: path.to_owned() })
    }
}

/// A set of questions and, for a page block, the widget to show alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuestionSet {
    /// The questions, ids unique.
    pub questions: Vec<Question>,
    /// `"embed": "<widget>"`: open the page as that widget alone (a lesson file).
    pub embed: Option<String>,
}

/// Parses a questions file (`{"questions": [...], "embed"?: widget}`) named
/// `name` in messages. Ids must be unique.
pub fn parse_set(text: &str, name: &str) -> Result<QuestionSet, FieldError> {
    let root = J::parse(text).map_err(|e| format!("{name}: {e}"))?;
    only(&root, name, &["$comment", "questions", "embed"])?;
    let embed = root.get("embed").map(|e| text_at(e, &format!("{name}.embed")).map(str::to_owned)).transpose()?;
    let items = arr_at(field(&root, name, "questions")?, "questions")?;
    let mut questions: Vec<Question> = Vec::new();
    for (i, q) in items.iter().enumerate() {
        let p = format!("questions[{i}]");
        let q = Question::parse(q, &p)?;
        if questions.iter().any(|o| o.id == q.id) {
            return Err(err(&format!("{p}.id"), format!("'{}' is used twice", q.id)));
        }
        questions.push(q);
    }
    Ok(QuestionSet { questions, embed })
}

/// Parses the built-in questions file.
pub fn parse_file(text: &str) -> Result<Vec<Question>, FieldError> {
    parse_set(text, "questions.json").map(|s| s.questions)
}

/// Parses one question (the URL's `qj=`, the JS API's `mount`), named `name` in messages.
pub fn parse_one(text: &str, name: &str) -> Result<Question, FieldError> {
    Question::parse(&J::parse(text).map_err(|e| format!("{name}: {e}"))?, name)
}

/// A question with every value computed for the widget's current state.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// The prompt.
    pub prompt: String,
    /// `(text, why)` per option.
    pub options: Vec<(String, String)>,
    /// The right option's index.
    pub right: usize,
}

/// Variables over the widget's environment.
struct Scope<'a> {
    vars: Vec<(String, f64)>,
    env: &'a dyn Env,
    /// Runs already made while resolving (several values often read one run).
    runs: RefCell<Vec<RunCache>>,
}

/// Most different experiment runs one question may ask for (each runs under the page's work caps).
const MAX_RUNS: usize = 8;

type RunCache = ((Vec<(String, String)>, String), Result<String, String>);

impl Env for Scope<'_> {
    fn lookup(&self, name: &str) -> Option<Lookup> {
        match self.vars.iter().rev().find(|(k, _)| k == name) {
            Some((_, v)) => Some(Lookup::Num(*v)),
            None => self.env.lookup(name),
        }
    }
    fn run_csv(&self, set: &[(String, String)], table: &str) -> Result<String, String> {
        let key = (set.to_vec(), table.to_owned());
        if let Some((_, r)) = self.runs.borrow().iter().find(|(k, _)| *k == key) {
            return r.clone();
        }
        if self.runs.borrow().len() >= MAX_RUNS {
            return Err(format!("run: at most {MAX_RUNS} different runs in one question (each is a whole experiment)"));
        }
        let r = self.env.run_csv(set, table);
        self.runs.borrow_mut().push((key, r.clone()));
        r
    }
}

impl Question {
    /// Computes the prompt, the options and the right one for the widget's state.
    pub fn resolve(&self, env: &dyn Env) -> Result<Resolved, FieldError> {
        let p = &self.path;
        let mut scope = Scope { vars: Vec::new(), env, runs: RefCell::new(Vec::new()) };
        for (k, e) in &self.vars {
            let v = e.eval(&scope).map_err(|m| err(&format!("{p}.vars.{k}"), m))?;
            scope.vars.push((k.clone(), v));
        }
        let prompt = self.prompt.render(&scope, None, &format!("{p}.prompt"))?;
        let mut options = Vec::new();
        let mut values = Vec::new();
        for (i, o) in self.options.iter().enumerate() {
            let op = format!("{p}.options[{i}]");
            let v = o.value.as_ref().map(|e| e.eval(&scope)).transpose().map_err(|m| err(&format!("{op}.value"), m))?;
            values.push(v);
            options.push((
                o.text.render(&scope, v, &format!("{op}.text"))?,
                o.why.render(&scope, v, &format!("{op}.why"))?,
            ));
        }
        let right = match &self.answer {
            Answer::Closest(e) => {
                let target = e.eval(&scope).map_err(|m| err(&format!("{p}.answer.closest"), m))?;
                let mut best: Option<(usize, f64)> = None;
                for (i, v) in values.iter().enumerate() {
                    if let Some(v) = v {
                        let d = (v - target).abs();
                        if best.is_none_or(|(_, b)| d < b) {
                            best = Some((i, d));
                        }
                    }
                }
                best.map(|(i, _)| i).unwrap_or(0)
            }
            Answer::First(cases, otherwise) => {
                let mut pick = *otherwise;
                for (i, (cond, then)) in cases.iter().enumerate() {
                    if cond.holds(&scope).map_err(|m| err(&format!("{p}.answer.first[{i}].if"), m))? {
                        pick = *then;
                        break;
                    }
                }
                pick
            }
            Answer::Statements(otherwise) => {
                let mut right = Vec::new();
                for (i, o) in self.options.iter().enumerate() {
                    let op = format!("{p}.options[{i}]");
                    let (Some(out), Some(why)) = (&o.outcome, &o.reason) else { continue };
                    // Right only when what it says happens and why both hold.
                    if all_hold(out, &scope, &format!("{op}.outcome"))?
                        && all_hold(why, &scope, &format!("{op}.reason"))?
                    {
                        right.push(i);
                    }
                }
                match right[..] {
                    [i] => i,
                    _ => {
                        let path = format!("{p}.answer.statements.otherwise");
                        return Err(err(&p.to_string(), otherwise.render(&scope, None, &path)?));
                    }
                }
            }
        };
        Ok(Resolved { prompt, options, right })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    //! The built-in questions resolved natively against the real models:
    //! an option is marked right only where its outcome and its reason both
    //! hold on the widget's run (audit T12, T13).
    use super::*;
    use bplab_core::{Caps, EXPERIMENTS, Experiment, Params, Scenario};

    /// A small JSON reader for the tests (the page reads with `JSON.parse`).
    fn parse(s: &str) -> J {
        fn ws(b: &[u8], i: &mut usize) {
            while *i < b.len() && b[*i].is_ascii_whitespace() {
                *i += 1;
            }
        }
        fn val(b: &[u8], i: &mut usize) -> J {
            ws(b, i);
            match b[*i] {
                b'{' => {
                    *i += 1;
                    let mut out = Vec::new();
                    loop {
                        ws(b, i);
                        if b[*i] == b'}' {
                            *i += 1;
                            return J::Obj(out);
                        }
                        let J::Str(k) = val(b, i) else { panic!("key") };
                        ws(b, i);
                        assert_eq!(b[*i], b':');
                        *i += 1;
                        out.push((k, val(b, i)));
                        ws(b, i);
                        if b[*i] == b',' {
                            *i += 1;
                        }
                    }
                }
                b'[' => {
                    *i += 1;
                    let mut out = Vec::new();
                    loop {
                        ws(b, i);
                        if b[*i] == b']' {
                            *i += 1;
                            return J::Arr(out);
                        }
                        out.push(val(b, i));
                        ws(b, i);
                        if b[*i] == b',' {
                            *i += 1;
                        }
                    }
                }
                b'"' => {
                    *i += 1;
                    let mut out = Vec::new();
                    while b[*i] != b'"' {
                        if b[*i] == b'\\' {
                            *i += 1;
                            out.push(match b[*i] {
                                b'n' => b'\n',
                                c => c,
                            });
                        } else {
                            out.push(b[*i]);
                        }
                        *i += 1;
                    }
                    *i += 1;
                    J::Str(String::from_utf8(out).unwrap())
                }
                b't' => {
                    *i += 4;
                    J::Bool(true)
                }
                b'f' => {
                    *i += 5;
                    J::Bool(false)
                }
                b'n' => {
                    *i += 4;
                    J::Null
                }
                _ => {
                    let start = *i;
                    while *i < b.len() && matches!(b[*i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                        *i += 1;
                    }
                    J::Num(std::str::from_utf8(&b[start..*i]).unwrap().parse().unwrap())
                }
            }
        }
        val(s.as_bytes(), &mut 0)
    }

    fn built_in() -> Vec<Question> {
        let root = parse(BUILT_IN);
        let J::Arr(items) = root.get("questions").unwrap() else { panic!() };
        items.iter().enumerate().map(|(i, q)| Question::parse(q, &format!("questions[{i}]")).unwrap()).collect()
    }

    /// A widget's parameters and its experiment, as the page's env.
    struct Widget(Params);

    impl Env for Widget {
        fn lookup(&self, name: &str) -> Option<Lookup> {
            Some(Lookup::Text(self.0.get(name)?))
        }
        fn run_csv(&self, set: &[(String, String)], table: &str) -> Result<String, String> {
            let mut p = self.0.clone();
            for (k, v) in set {
                p.set(k, v).map_err(|e| e.to_string())?;
            }
            let r = Scenario::new(p, Caps::PAGE).map_err(|e| e.to_string())?.run();
            r.tables().iter().find(|t| t.spec.file == table).map(|t| t.csv()).ok_or("no table".into())
        }
    }

    fn lesson(edits: &[(&str, &str)]) -> Widget {
        let e = EXPERIMENTS.iter().find(|e| e.name == "lesson").unwrap();
        let mut p = Experiment::get(e.id).defaults();
        p.apply(edits).unwrap();
        Widget(p)
    }

    /// The littles widget's three inputs.
    struct Littles(f64, f64, f64);

    impl Env for Littles {
        fn lookup(&self, name: &str) -> Option<Lookup> {
            let v = match name {
                "workers" => self.0,
                "budget-ms" => self.1,
                "service-ms" => self.2,
                _ => return None,
            };
            Some(Lookup::Num(v))
        }
        fn run_csv(&self, _: &[(String, String)], _: &str) -> Result<String, String> {
            Err("no run".into())
        }
    }

    #[test]
    fn predict_ceiling_marks_an_option_only_when_its_reason_holds() {
        let qs = built_in();
        let q = qs.iter().find(|q| q.id == "predict-ceiling").unwrap();
        // The lesson's settings: the limit refuses the excess, nobody gives up.
        let r = q.resolve(&lesson(&[])).unwrap();
        assert_eq!(r.right, 1, "{r:?}");
        // T12: a 95-deep line. Answers halve because callers give up, not
        // because of the refusals: "halves, because half are refused" is not
        // right; "far below, because callers give up" is.
        for limit in ["95", "100", "off"] {
            let r = q.resolve(&lesson(&[("limit", limit)])).unwrap();
            assert_eq!(r.right, 2, "limit {limit}: {r:?}");
        }
        // Where no option's outcome and reason both hold, nothing is marked.
        // 94 waiting at 21 ms against a 1990 ms timeout: 284 give up, 38.1 a second delivered.
        let e = q.resolve(&lesson(&[("limit", "94"), ("client-timeout-ms", "1990")])).unwrap_err();
        assert!(e.contains("needs the lesson's settings") && e.contains("callers give up"), "{e}");
        // Two workers at the lesson's other settings: still the plateau, computed.
        let r = q.resolve(&lesson(&[("workers", "2")])).unwrap();
        assert_eq!(r.right, 1, "{r:?}");
        assert!(r.options[1].0.contains("ceiling of 95.24 a second"), "{r:?}");
    }

    #[test]
    fn check_limit_computes_its_numbers_and_its_premise() {
        let qs = built_in();
        let q = qs.iter().find(|q| q.id == "check-limit").unwrap();
        let r = q.resolve(&Littles(4.0, 230.0, 12.0)).unwrap();
        assert_eq!(r.right, 0);
        assert!(r.options[0].0.contains("4 worker(s) at 12 ms against the same budget allow 72 queued"), "{r:?}");
        assert!(r.prompt.contains("on faster hardware"), "{}", r.prompt);
        // T13: one worker at 30 ms ships 6: ten is too loose, and the hardware is slower.
        let r = q.resolve(&Littles(1.0, 230.0, 30.0)).unwrap();
        assert_eq!(r.right, 1, "{r:?}");
        assert!(r.options[1].0.contains("it should be 6") && r.prompt.contains("on slower hardware"), "{r:?}");
        // T13: budget 100 at 4 × 12 ms ships 28: no "36", no "two workers".
        let r = q.resolve(&Littles(4.0, 100.0, 12.0)).unwrap();
        assert_eq!(r.right, 0);
        let all: String = r.options.iter().map(|(t, w)| format!("{t} {w}")).collect();
        assert!(all.contains("allow 28 queued") && !all.contains("36") && !all.contains("two workers"), "{all}");
    }

    #[test]
    fn an_option_states_its_outcome_and_reason_together() {
        let q = parse(
            r#"{"id": "a", "widget": "littles", "prompt": "p", "options": [{"text": "x", "why": "y", "outcome": [1, "<", 2]}, {"text": "z", "why": "w"}], "answer": {"statements": {"otherwise": "n"}}}"#,
        );
        let e = Question::parse(&q, "q").unwrap_err();
        assert!(e.contains("q.options[0]: an option states its 'outcome' and its 'reason' together"), "{e}");
    }
}

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
}

/// How the right option is computed.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// `{"closest": value}`: the option whose `value` is nearest (the first of ties).
    Closest(Expr),
    /// `{"first": [{"if": [a, op, b], "then": i}, …], "else": i}`: the first case that holds.
    First(Vec<(Cond, usize)>, usize),
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
            only(o, &p, &["text", "value", "why"])?;
            options.push(Choice {
                text: Text::parse(field(o, &p, "text")?, &format!("{p}.text"))?,
                value: o.get("value").map(|x| Expr::parse(x, &format!("{p}.value"))).transpose()?,
                why: Text::parse(field(o, &p, "why")?, &format!("{p}.why"))?,
            });
        }
        let ap = format!("{path}.answer");
        let a = field(v, path, "answer")?;
        let answer = if let Some(c) = a.get("closest") {
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
            return Err(err(&ap, "expected {\"closest\": value} or {\"first\": [...], \"else\": index}"));
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
        };
        Ok(Resolved { prompt, options, right })
    }
}

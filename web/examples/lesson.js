// Fills the lesson's sentences from the bplab API (see ../bplab-api.js).
import { limit, littles, run } from '../bplab-api.js';

const put = (name, text) => {
  for (const el of document.querySelectorAll(`[data-bplab="${name}"]`)) el.textContent = text;
};

try {
  // record_limit is the number to ship (its worst time fits the budget);
  // queue_limit is the lesson's half-up figure, shown beside it as the lesson's.
  const one = limit({ workers: 1, budget_ms: 230, service_ms: 21 });
  const four = limit({ workers: 4, budget_ms: 230, service_ms: 12 });
  put('limit-1', String(one.record_limit));
  put('half-up-1', String(one.queue_limit));
  put('why-1', one.explanation.answer);
  put('limit-4', String(four.record_limit));
  put('half-up-4', String(four.queue_limit));
  const law = littles({ arrivals_rps: one.capacity_rps, latency_ms: 230 });
  put('capacity', one.capacity_rps.toFixed(1));
  put('in-flight', law.in_flight.toFixed(2));
  // One rate, one replica: the first data row of lesson-sweep.csv.
  const r = run('lesson', { limit: one.record_limit, rate: 100, replicas: 1 });
  const [header, row] = r.tables['lesson-sweep.csv'].trim().split('\n');
  const cell = (col) => row.split(',')[header.split(',').indexOf(col)];
  put('ok-100', cell('ok_per_sec'));
  put('p99-100', cell('p99_ms'));
} catch (e) {
  const box = document.getElementById('error');
  box.textContent = `The lab could not compute these numbers: ${e.message}`;
  box.hidden = false;
}

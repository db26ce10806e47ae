// The test LMS: `?state=<flattened CMI JSON>` relaunches with what an earlier
// session stored (entry "resume"); `?mastery=N` is the manifest's mastery score;
// `?sco=<path>` is the package's launch file. Every API call is logged in
// window.lmsCalls; window.lmsState() returns what an LMS would store.
(() => {
  const q = new URLSearchParams(location.search);
  const api = new Scorm12API({ autocommit: false, logLevel: 5 });
  const state = q.get('state');
  if (state) {
    api.loadFromFlattenedJSON(JSON.parse(state));
    api.cmi.core.entry = 'resume';
  } else {
    api.cmi.core.entry = 'ab-initio';
  }
  if (q.get('mastery')) api.cmi.student_data.mastery_score = q.get('mastery');
  window.lmsCalls = [];
  for (const name of ['LMSInitialize', 'LMSCommit', 'LMSFinish']) api.on(name, () => window.lmsCalls.push([name]));
  api.on('LMSSetValue.cmi.*', (k, v) => window.lmsCalls.push(['LMSSetValue', k, v]));
  window.lmsState = () => ({
    'cmi.core.lesson_status': api.cmi.core.lesson_status,
    'cmi.core.score.raw': api.cmi.core.score.raw,
    'cmi.core.score.min': api.cmi.core.score.min,
    'cmi.core.score.max': api.cmi.core.score.max,
    'cmi.suspend_data': api.cmi.suspend_data,
  });
  window.API = api;
  document.getElementById('sco').src = q.get('sco') || '/pkg/bplab.html';
})();

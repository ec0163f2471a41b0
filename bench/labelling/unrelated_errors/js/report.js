module.exports = function report(req, res) {
  res.format({ 'text/plain': 'no report yet', default: () => res.sendStatus(406) });
};

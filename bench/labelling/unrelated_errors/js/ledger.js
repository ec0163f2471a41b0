class Ledger {
  toJSON() { throw new Error('ledger is locked for month-end close'); }
}
module.exports = function showLedger(req, res) {
  res.json({ ledger: new Ledger() });
};

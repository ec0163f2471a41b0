module.exports = function showAccount(req, res) {
  res.json({ id: 9007199254740993n, name: 'ada' });
};

module.exports = function listPages(req, res) {
  const next = null;
  res.links(next).json([]);
};

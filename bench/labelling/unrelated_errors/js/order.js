module.exports = function showOrder(req, res) {
  const order = { id: 'A-1001', lines: [] };
  order.lines.push({ sku: 'TEA-42', order });
  res.json(order);
};

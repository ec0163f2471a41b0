module.exports = function downloadInvoice(req, res) {
  const invoiceId = 42;
  res.attachment(invoiceId).send('...');
};

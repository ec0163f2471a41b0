// node run.js ROUTEFILE : mounts the route module and sends one request
const express = require('/work/bench/search7/express-wt');
const http = require('http');
const app = express();
app.get('/x', require('./' + process.argv[2]));
const server = app.listen(0, '127.0.0.1', () => {
  http.get({ host: '127.0.0.1', port: server.address().port, path: '/x' }, (r) => {
    r.resume(); r.on('end', () => server.close());
  });
});

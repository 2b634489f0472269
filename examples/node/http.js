// SPDX-License-Identifier: MIT
// http.js - a small Node.js HTTP server and client, for `weft record --
// node examples/node/http.js` with a Node.js that links libuv
// dynamically (Debian's).  A timer, a file read (the threadpool), a
// pbkdf2 (the threadpool), and a server on 127.0.0.1 that a client of the
// same process asks three times over one connection.
'use strict';
const http = require('http');
const fs = require('fs');
const crypto = require('crypto');

setTimeout(() => console.log('timer'), 10);
fs.readFile(__filename, (err, data) => {
	console.log('read ' + (err ? err.code : data.length + ' bytes'));
});
crypto.pbkdf2('secret', 'salt', 1000, 32, 'sha256', (err, key) => {
	console.log('pbkdf2 ' + key.toString('hex').slice(0, 8));
});

const server = http.createServer((req, res) => {
	res.end('hello ' + req.url);
});
server.listen(0, '127.0.0.1', () => {
	const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
	const port = server.address().port;
	let left = 3;
	const ask = (n) => {
		http.get({ host: '127.0.0.1', port, path: '/' + n, agent }, (res) => {
			let body = '';
			res.on('data', (d) => (body += d));
			res.on('end', () => {
				console.log(body);
				if (--left === 0) {
					agent.destroy();
					server.close();
				} else {
					ask(n + 1);
				}
			});
		});
	};
	ask(1);
});

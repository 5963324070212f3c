module.exports = require('./tooling/prettier/prettier.config.json');

// Runs autocannon in a process of its own, so the load generator has an event loop to itself.
// Usage: node bench/autocannon-run.mjs '<JSON options of autocannon>'; prints autocannon's result as JSON.
import autocannon from 'autocannon'

const result = await autocannon(JSON.parse(process.argv[2]))
process.stdout.write(JSON.stringify(result))

#!/usr/bin/env node
import { main } from '../dist/admin.js'

process.exitCode = await main()

/** @type {import('next').NextConfig} */
export default {
  // lingxi is ESM with 'use client' on its entry: nothing to transpile, nothing to configure.
  reactStrictMode: true
}

// Loaded before every test file (bunfig.toml): after the last test, the scratch folders of the whole run go.
import { afterAll } from "bun:test";
import { removeTempDirs } from "../src/lib/temp-dir";

afterAll(removeTempDirs);

mod support;

mod batch;

mod exec_file;
mod execute;
mod fetch;
mod index_search;
mod process;
mod properties;
mod protocol;
mod script_cache;

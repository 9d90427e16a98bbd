# reports/: `make report` — measure (kcal bench), predict (kcal predict) and
# compare (kcal report) on this machine; reports/make-report runs the steps
# and says what it does on stderr. Output: reports/out/ (git-ignored).
#   make report              p = 2 .. cores over 1K:8M, within ~10 minutes
#   make report QUICK=1      p = 2, four sizes, under 3 minutes
#   make report OVERSUB=8    also p = cores+1 .. 8, labelled oversubscribed
#   make report PARAMS=f     use these params instead of data/<host>.params
#   make report MPI=mpich    against MPICH (its build, params probed with it:
#                            data/<host>-mpich.params; reports/out-mpich/)
#   make report AGAIN=0      one launch of kcal bench (no noise floor)
report: all
	@QUICK='$(QUICK)' OVERSUB='$(OVERSUB)' PARAMS='$(PARAMS)' AGAIN='$(AGAIN)' KCAL_MPI='$(MPI)' \
	  KCAL='$(CURDIR)/kcal' reports/make-report

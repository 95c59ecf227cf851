# The surplus-core advisor's logic (wave3d advise): saturation points of scaling curves, the advice
# drawn from them, and their JSON and text forms. Measuring is the app's job.
target_sources(wave3d_node PRIVATE
  advise/curve.cpp advise/advice.cpp advise/advise_json.cpp advise/advise_report.cpp)
